"builtin.module"() ({
  "func.func"() ({
  ^bb0(%arg0: tensor<2xf32>):
    %v1_0 = "stablehlo.abs"(%arg0) : (tensor<2xf32>) -> tensor<2xf32>
    %v1_1 = "stablehlo.constant"() {value = dense<1.0> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_2 = "stablehlo.constant"() {value = dense<0.75> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_3 = "stablehlo.maximum"(%v1_0, %v1_2) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_4 = "stablehlo.multiply"(%v1_3, %v1_3) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_5 = "stablehlo.constant"() {value = dense<1.375> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_6 = "stablehlo.subtract"(%v1_3, %v1_5) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_7 = "stablehlo.constant"() {value = dense<1.6448598e-09> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_8 = "stablehlo.multiply"(%v1_7, %v1_6) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_9 = "stablehlo.constant"() {value = dense<-6.539731e-09> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_10 = "stablehlo.add"(%v1_8, %v1_9) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_11 = "stablehlo.multiply"(%v1_10, %v1_6) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_12 = "stablehlo.constant"() {value = dense<2.1612392e-08> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_13 = "stablehlo.add"(%v1_11, %v1_12) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_14 = "stablehlo.multiply"(%v1_13, %v1_6) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_15 = "stablehlo.constant"() {value = dense<-7.847294e-08> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_16 = "stablehlo.add"(%v1_14, %v1_15) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_17 = "stablehlo.multiply"(%v1_16, %v1_6) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_18 = "stablehlo.constant"() {value = dense<2.8182342e-07> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_19 = "stablehlo.add"(%v1_17, %v1_18) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_20 = "stablehlo.multiply"(%v1_19, %v1_6) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_21 = "stablehlo.constant"() {value = dense<-9.80537e-07> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_22 = "stablehlo.add"(%v1_20, %v1_21) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_23 = "stablehlo.multiply"(%v1_22, %v1_6) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_24 = "stablehlo.constant"() {value = dense<3.3208582e-06> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_25 = "stablehlo.add"(%v1_23, %v1_24) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_26 = "stablehlo.multiply"(%v1_25, %v1_6) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_27 = "stablehlo.constant"() {value = dense<-1.0938115e-05> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_28 = "stablehlo.add"(%v1_26, %v1_27) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_29 = "stablehlo.multiply"(%v1_28, %v1_6) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_30 = "stablehlo.constant"() {value = dense<3.4965018e-05> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_31 = "stablehlo.add"(%v1_29, %v1_30) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_32 = "stablehlo.multiply"(%v1_31, %v1_6) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_33 = "stablehlo.constant"() {value = dense<-0.00010823684> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_34 = "stablehlo.add"(%v1_32, %v1_33) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_35 = "stablehlo.multiply"(%v1_34, %v1_6) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_36 = "stablehlo.constant"() {value = dense<0.00032365078> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_37 = "stablehlo.add"(%v1_35, %v1_36) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_38 = "stablehlo.multiply"(%v1_37, %v1_6) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_39 = "stablehlo.constant"() {value = dense<-0.00093208556> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_40 = "stablehlo.add"(%v1_38, %v1_39) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_41 = "stablehlo.multiply"(%v1_40, %v1_6) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_42 = "stablehlo.constant"() {value = dense<0.0025762208> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_43 = "stablehlo.add"(%v1_41, %v1_42) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_44 = "stablehlo.multiply"(%v1_43, %v1_6) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_45 = "stablehlo.constant"() {value = dense<-0.006804603> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_46 = "stablehlo.add"(%v1_44, %v1_45) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_47 = "stablehlo.multiply"(%v1_46, %v1_6) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_48 = "stablehlo.constant"() {value = dense<0.017084992> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_49 = "stablehlo.add"(%v1_47, %v1_48) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_50 = "stablehlo.multiply"(%v1_49, %v1_6) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_51 = "stablehlo.constant"() {value = dense<-0.04050337> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_52 = "stablehlo.add"(%v1_50, %v1_51) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_53 = "stablehlo.multiply"(%v1_52, %v1_6) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_54 = "stablehlo.constant"() {value = dense<0.089862116> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_55 = "stablehlo.add"(%v1_53, %v1_54) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_56 = "stablehlo.multiply"(%v1_55, %v1_6) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_57 = "stablehlo.constant"() {value = dense<-0.18431547> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_58 = "stablehlo.add"(%v1_56, %v1_57) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_59 = "stablehlo.multiply"(%v1_58, %v1_6) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_60 = "stablehlo.constant"() {value = dense<0.3432959> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_61 = "stablehlo.add"(%v1_59, %v1_60) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_62 = "stablehlo.constant"() {value = dense<2.5> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_63 = "stablehlo.subtract"(%v1_3, %v1_62) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_64 = "stablehlo.constant"() {value = dense<-9.359572e-10> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_65 = "stablehlo.multiply"(%v1_64, %v1_63) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_66 = "stablehlo.constant"() {value = dense<4.022927e-09> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_67 = "stablehlo.add"(%v1_65, %v1_66) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_68 = "stablehlo.multiply"(%v1_67, %v1_63) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_69 = "stablehlo.constant"() {value = dense<-1.6144247e-08> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_70 = "stablehlo.add"(%v1_68, %v1_69) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_71 = "stablehlo.multiply"(%v1_70, %v1_63) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_72 = "stablehlo.constant"() {value = dense<6.705584e-08> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_73 = "stablehlo.add"(%v1_71, %v1_72) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_74 = "stablehlo.multiply"(%v1_73, %v1_63) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_75 = "stablehlo.constant"() {value = dense<-2.7295937e-07> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_76 = "stablehlo.add"(%v1_74, %v1_75) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_77 = "stablehlo.multiply"(%v1_76, %v1_63) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_78 = "stablehlo.constant"() {value = dense<1.0852405e-06> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_79 = "stablehlo.add"(%v1_77, %v1_78) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_80 = "stablehlo.multiply"(%v1_79, %v1_63) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_81 = "stablehlo.constant"() {value = dense<-4.2142947e-06> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_82 = "stablehlo.add"(%v1_80, %v1_81) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_83 = "stablehlo.multiply"(%v1_82, %v1_63) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_84 = "stablehlo.constant"() {value = dense<1.596185e-05> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_85 = "stablehlo.add"(%v1_83, %v1_84) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_86 = "stablehlo.multiply"(%v1_85, %v1_63) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_87 = "stablehlo.constant"() {value = dense<-5.8868965e-05> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_88 = "stablehlo.add"(%v1_86, %v1_87) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_89 = "stablehlo.multiply"(%v1_88, %v1_63) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_90 = "stablehlo.constant"() {value = dense<0.00021101983> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_91 = "stablehlo.add"(%v1_89, %v1_90) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_92 = "stablehlo.multiply"(%v1_91, %v1_63) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_93 = "stablehlo.constant"() {value = dense<-0.0007335909> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_94 = "stablehlo.add"(%v1_92, %v1_93) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_95 = "stablehlo.multiply"(%v1_94, %v1_63) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_96 = "stablehlo.constant"() {value = dense<0.0024670367> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_97 = "stablehlo.add"(%v1_95, %v1_96) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_98 = "stablehlo.multiply"(%v1_97, %v1_63) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_99 = "stablehlo.constant"() {value = dense<-0.00800157> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_100 = "stablehlo.add"(%v1_98, %v1_99) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_101 = "stablehlo.multiply"(%v1_100, %v1_63) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_102 = "stablehlo.constant"() {value = dense<0.024937997> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_103 = "stablehlo.add"(%v1_101, %v1_102) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_104 = "stablehlo.multiply"(%v1_103, %v1_63) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_105 = "stablehlo.constant"() {value = dense<-0.07434735> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_106 = "stablehlo.add"(%v1_104, %v1_105) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_107 = "stablehlo.multiply"(%v1_106, %v1_63) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_108 = "stablehlo.constant"() {value = dense<0.21080637> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_109 = "stablehlo.add"(%v1_107, %v1_108) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_110 = "stablehlo.constant"() {value = dense<1.0> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_111 = "stablehlo.divide"(%v1_110, %v1_4) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_112 = "stablehlo.constant"() {value = dense<0.05619331> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_113 = "stablehlo.subtract"(%v1_111, %v1_112) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_114 = "stablehlo.constant"() {value = dense<14702234624.0> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_115 = "stablehlo.multiply"(%v1_114, %v1_113) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_116 = "stablehlo.constant"() {value = dense<-2054327552.0> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_117 = "stablehlo.add"(%v1_115, %v1_116) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_118 = "stablehlo.multiply"(%v1_117, %v1_113) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_119 = "stablehlo.constant"() {value = dense<96306824.0> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_120 = "stablehlo.add"(%v1_118, %v1_119) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_121 = "stablehlo.multiply"(%v1_120, %v1_113) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_122 = "stablehlo.constant"() {value = dense<-17748788.0> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_123 = "stablehlo.add"(%v1_121, %v1_122) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_124 = "stablehlo.multiply"(%v1_123, %v1_113) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_125 = "stablehlo.constant"() {value = dense<4370650.5> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_126 = "stablehlo.add"(%v1_124, %v1_125) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_127 = "stablehlo.multiply"(%v1_126, %v1_113) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_128 = "stablehlo.constant"() {value = dense<-735769.25> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_129 = "stablehlo.add"(%v1_127, %v1_128) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_130 = "stablehlo.multiply"(%v1_129, %v1_113) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_131 = "stablehlo.constant"() {value = dense<126213.586> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_132 = "stablehlo.add"(%v1_130, %v1_131) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_133 = "stablehlo.multiply"(%v1_132, %v1_113) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_134 = "stablehlo.constant"() {value = dense<-23605.295> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_135 = "stablehlo.add"(%v1_133, %v1_134) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_136 = "stablehlo.multiply"(%v1_135, %v1_113) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_137 = "stablehlo.constant"() {value = dense<4645.298> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_138 = "stablehlo.add"(%v1_136, %v1_137) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_139 = "stablehlo.multiply"(%v1_138, %v1_113) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_140 = "stablehlo.constant"() {value = dense<-965.6655> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_141 = "stablehlo.add"(%v1_139, %v1_140) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_142 = "stablehlo.multiply"(%v1_141, %v1_113) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_143 = "stablehlo.constant"() {value = dense<214.44122> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_144 = "stablehlo.add"(%v1_142, %v1_143) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_145 = "stablehlo.multiply"(%v1_144, %v1_113) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_146 = "stablehlo.constant"() {value = dense<-51.44375> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_147 = "stablehlo.add"(%v1_145, %v1_146) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_148 = "stablehlo.multiply"(%v1_147, %v1_113) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_149 = "stablehlo.constant"() {value = dense<13.529728> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_150 = "stablehlo.add"(%v1_148, %v1_149) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_151 = "stablehlo.multiply"(%v1_150, %v1_113) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_152 = "stablehlo.constant"() {value = dense<-3.9811137> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_153 = "stablehlo.add"(%v1_151, %v1_152) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_154 = "stablehlo.multiply"(%v1_153, %v1_113) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_155 = "stablehlo.constant"() {value = dense<1.349723> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_156 = "stablehlo.add"(%v1_154, %v1_155) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_157 = "stablehlo.multiply"(%v1_156, %v1_113) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_158 = "stablehlo.constant"() {value = dense<-0.5518724> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_159 = "stablehlo.add"(%v1_157, %v1_158) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_160 = "stablehlo.multiply"(%v1_159, %v1_113) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_161 = "stablehlo.constant"() {value = dense<0.29455972> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_162 = "stablehlo.add"(%v1_160, %v1_161) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_163 = "stablehlo.multiply"(%v1_162, %v1_113) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_164 = "stablehlo.constant"() {value = dense<-0.24254473> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_165 = "stablehlo.add"(%v1_163, %v1_164) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_166 = "stablehlo.multiply"(%v1_165, %v1_113) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_167 = "stablehlo.constant"() {value = dense<0.5495159> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_168 = "stablehlo.add"(%v1_166, %v1_167) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_169 = "stablehlo.divide"(%v1_168, %v1_3) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_170 = "stablehlo.constant"() {value = dense<3.0> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_171 = "stablehlo.compare"(%v1_3, %v1_170) {comparison_direction = #stablehlo<comparison_direction LT>, compare_type = #stablehlo<comparison_type FLOAT>} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
    %v1_172 = "stablehlo.select"(%v1_171, %v1_109, %v1_169) : (tensor<2xi1>, tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_173 = "stablehlo.constant"() {value = dense<2.0> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_174 = "stablehlo.compare"(%v1_3, %v1_173) {comparison_direction = #stablehlo<comparison_direction LT>, compare_type = #stablehlo<comparison_type FLOAT>} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
    %v1_175 = "stablehlo.select"(%v1_174, %v1_61, %v1_172) : (tensor<2xi1>, tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_176 = "stablehlo.negate"(%v1_4) : (tensor<2xf32>) -> tensor<2xf32>
    %v1_177 = "stablehlo.exponential"(%v1_176) : (tensor<2xf32>) -> tensor<2xf32>
    %v1_178 = "stablehlo.multiply"(%v1_177, %v1_175) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_179 = "stablehlo.subtract"(%v1_1, %v1_178) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_180 = "stablehlo.constant"() {value = dense<0.0> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_181 = "stablehlo.compare"(%arg0, %v1_180) {comparison_direction = #stablehlo<comparison_direction LT>, compare_type = #stablehlo<comparison_type FLOAT>} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
    %v1_182 = "stablehlo.negate"(%v1_179) : (tensor<2xf32>) -> tensor<2xf32>
    %v1_183 = "stablehlo.select"(%v1_181, %v1_182, %v1_179) : (tensor<2xi1>, tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_184 = "stablehlo.multiply"(%arg0, %arg0) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_185 = "stablehlo.constant"() {value = dense<1.165856e-08> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_186 = "stablehlo.multiply"(%v1_185, %v1_184) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_187 = "stablehlo.constant"() {value = dense<-1.5995397e-07> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_188 = "stablehlo.add"(%v1_186, %v1_187) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_189 = "stablehlo.multiply"(%v1_188, %v1_184) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_190 = "stablehlo.constant"() {value = dense<1.6437741e-06> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_191 = "stablehlo.add"(%v1_189, %v1_190) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_192 = "stablehlo.multiply"(%v1_191, %v1_184) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_193 = "stablehlo.constant"() {value = dense<-1.4924701e-05> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_194 = "stablehlo.add"(%v1_192, %v1_193) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_195 = "stablehlo.multiply"(%v1_194, %v1_184) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_196 = "stablehlo.constant"() {value = dense<0.000120553115> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_197 = "stablehlo.add"(%v1_195, %v1_196) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_198 = "stablehlo.multiply"(%v1_197, %v1_184) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_199 = "stablehlo.constant"() {value = dense<-0.0008548327> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_200 = "stablehlo.add"(%v1_198, %v1_199) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_201 = "stablehlo.multiply"(%v1_200, %v1_184) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_202 = "stablehlo.constant"() {value = dense<0.005223978> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_203 = "stablehlo.add"(%v1_201, %v1_202) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_204 = "stablehlo.multiply"(%v1_203, %v1_184) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_205 = "stablehlo.constant"() {value = dense<-0.026866172> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_206 = "stablehlo.add"(%v1_204, %v1_205) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_207 = "stablehlo.multiply"(%v1_206, %v1_184) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_208 = "stablehlo.constant"() {value = dense<0.11283792> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_209 = "stablehlo.add"(%v1_207, %v1_208) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_210 = "stablehlo.multiply"(%v1_209, %v1_184) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_211 = "stablehlo.constant"() {value = dense<-0.37612638> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_212 = "stablehlo.add"(%v1_210, %v1_211) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_213 = "stablehlo.multiply"(%v1_212, %v1_184) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_214 = "stablehlo.constant"() {value = dense<0.12837917> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_215 = "stablehlo.add"(%v1_213, %v1_214) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_216 = "stablehlo.multiply"(%arg0, %v1_215) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_217 = "stablehlo.add"(%arg0, %v1_216) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_218 = "stablehlo.constant"() {value = dense<0.75> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_219 = "stablehlo.compare"(%v1_0, %v1_218) {comparison_direction = #stablehlo<comparison_direction LT>, compare_type = #stablehlo<comparison_type FLOAT>} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
    %v1 = "stablehlo.select"(%v1_219, %v1_217, %v1_183) : (tensor<2xi1>, tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    "func.return"(%v1) : (tensor<2xf32>) -> ()
  }) {function_type = (tensor<2xf32>) -> (tensor<2xf32>), sym_name = "main"} : () -> ()
}) {sym_name = "topos"} : () -> ()
