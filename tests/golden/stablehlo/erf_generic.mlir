"builtin.module"() ({
  "func.func"() ({
  ^bb0(%arg0: tensor<2xf32>):
    %v1_0 = "stablehlo.abs"(%arg0) : (tensor<2xf32>) -> tensor<2xf32>
    %v1_1 = "stablehlo.constant"() {value = dense<0.75> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_2 = "stablehlo.maximum"(%v1_0, %v1_1) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_3 = "stablehlo.multiply"(%v1_2, %v1_2) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_4 = "stablehlo.constant"() {value = dense<1.375> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_5 = "stablehlo.subtract"(%v1_2, %v1_4) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_6 = "stablehlo.constant"() {value = dense<1.6448598e-09> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_7 = "stablehlo.constant"() {value = dense<-6.539731e-09> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_8 = "stablehlo.multiply"(%v1_6, %v1_5) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_9 = "stablehlo.add"(%v1_8, %v1_7) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_10 = "stablehlo.constant"() {value = dense<2.1612392e-08> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_11 = "stablehlo.multiply"(%v1_9, %v1_5) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_12 = "stablehlo.add"(%v1_11, %v1_10) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_13 = "stablehlo.constant"() {value = dense<-7.847294e-08> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_14 = "stablehlo.multiply"(%v1_12, %v1_5) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_15 = "stablehlo.add"(%v1_14, %v1_13) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_16 = "stablehlo.constant"() {value = dense<2.8182342e-07> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_17 = "stablehlo.multiply"(%v1_15, %v1_5) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_18 = "stablehlo.add"(%v1_17, %v1_16) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_19 = "stablehlo.constant"() {value = dense<-9.80537e-07> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_20 = "stablehlo.multiply"(%v1_18, %v1_5) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_21 = "stablehlo.add"(%v1_20, %v1_19) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_22 = "stablehlo.constant"() {value = dense<3.3208582e-06> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_23 = "stablehlo.multiply"(%v1_21, %v1_5) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_24 = "stablehlo.add"(%v1_23, %v1_22) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_25 = "stablehlo.constant"() {value = dense<-1.0938115e-05> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_26 = "stablehlo.multiply"(%v1_24, %v1_5) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_27 = "stablehlo.add"(%v1_26, %v1_25) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_28 = "stablehlo.constant"() {value = dense<3.4965018e-05> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_29 = "stablehlo.multiply"(%v1_27, %v1_5) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_30 = "stablehlo.add"(%v1_29, %v1_28) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_31 = "stablehlo.constant"() {value = dense<-0.00010823684> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_32 = "stablehlo.multiply"(%v1_30, %v1_5) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_33 = "stablehlo.add"(%v1_32, %v1_31) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_34 = "stablehlo.constant"() {value = dense<0.00032365078> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_35 = "stablehlo.multiply"(%v1_33, %v1_5) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_36 = "stablehlo.add"(%v1_35, %v1_34) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_37 = "stablehlo.constant"() {value = dense<-0.00093208556> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_38 = "stablehlo.multiply"(%v1_36, %v1_5) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_39 = "stablehlo.add"(%v1_38, %v1_37) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_40 = "stablehlo.constant"() {value = dense<0.0025762208> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_41 = "stablehlo.multiply"(%v1_39, %v1_5) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_42 = "stablehlo.add"(%v1_41, %v1_40) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_43 = "stablehlo.constant"() {value = dense<-0.006804603> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_44 = "stablehlo.multiply"(%v1_42, %v1_5) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_45 = "stablehlo.add"(%v1_44, %v1_43) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_46 = "stablehlo.constant"() {value = dense<0.017084992> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_47 = "stablehlo.multiply"(%v1_45, %v1_5) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_48 = "stablehlo.add"(%v1_47, %v1_46) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_49 = "stablehlo.constant"() {value = dense<-0.04050337> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_50 = "stablehlo.multiply"(%v1_48, %v1_5) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_51 = "stablehlo.add"(%v1_50, %v1_49) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_52 = "stablehlo.constant"() {value = dense<0.089862116> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_53 = "stablehlo.multiply"(%v1_51, %v1_5) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_54 = "stablehlo.add"(%v1_53, %v1_52) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_55 = "stablehlo.constant"() {value = dense<-0.18431547> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_56 = "stablehlo.multiply"(%v1_54, %v1_5) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_57 = "stablehlo.add"(%v1_56, %v1_55) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_58 = "stablehlo.constant"() {value = dense<0.3432959> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_59 = "stablehlo.multiply"(%v1_57, %v1_5) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_60 = "stablehlo.add"(%v1_59, %v1_58) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_61 = "stablehlo.constant"() {value = dense<2.5> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_62 = "stablehlo.subtract"(%v1_2, %v1_61) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_63 = "stablehlo.constant"() {value = dense<-9.359572e-10> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_64 = "stablehlo.constant"() {value = dense<4.022927e-09> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_65 = "stablehlo.multiply"(%v1_63, %v1_62) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_66 = "stablehlo.add"(%v1_65, %v1_64) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_67 = "stablehlo.constant"() {value = dense<-1.6144247e-08> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_68 = "stablehlo.multiply"(%v1_66, %v1_62) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_69 = "stablehlo.add"(%v1_68, %v1_67) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_70 = "stablehlo.constant"() {value = dense<6.705584e-08> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_71 = "stablehlo.multiply"(%v1_69, %v1_62) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_72 = "stablehlo.add"(%v1_71, %v1_70) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_73 = "stablehlo.constant"() {value = dense<-2.7295937e-07> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_74 = "stablehlo.multiply"(%v1_72, %v1_62) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_75 = "stablehlo.add"(%v1_74, %v1_73) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_76 = "stablehlo.constant"() {value = dense<1.0852405e-06> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_77 = "stablehlo.multiply"(%v1_75, %v1_62) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_78 = "stablehlo.add"(%v1_77, %v1_76) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_79 = "stablehlo.constant"() {value = dense<-4.2142947e-06> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_80 = "stablehlo.multiply"(%v1_78, %v1_62) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_81 = "stablehlo.add"(%v1_80, %v1_79) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_82 = "stablehlo.constant"() {value = dense<1.596185e-05> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_83 = "stablehlo.multiply"(%v1_81, %v1_62) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_84 = "stablehlo.add"(%v1_83, %v1_82) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_85 = "stablehlo.constant"() {value = dense<-5.8868965e-05> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_86 = "stablehlo.multiply"(%v1_84, %v1_62) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_87 = "stablehlo.add"(%v1_86, %v1_85) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_88 = "stablehlo.constant"() {value = dense<0.00021101983> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_89 = "stablehlo.multiply"(%v1_87, %v1_62) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_90 = "stablehlo.add"(%v1_89, %v1_88) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_91 = "stablehlo.constant"() {value = dense<-0.0007335909> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_92 = "stablehlo.multiply"(%v1_90, %v1_62) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_93 = "stablehlo.add"(%v1_92, %v1_91) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_94 = "stablehlo.constant"() {value = dense<0.0024670367> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_95 = "stablehlo.multiply"(%v1_93, %v1_62) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_96 = "stablehlo.add"(%v1_95, %v1_94) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_97 = "stablehlo.constant"() {value = dense<-0.00800157> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_98 = "stablehlo.multiply"(%v1_96, %v1_62) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_99 = "stablehlo.add"(%v1_98, %v1_97) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_100 = "stablehlo.constant"() {value = dense<0.024937997> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_101 = "stablehlo.multiply"(%v1_99, %v1_62) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_102 = "stablehlo.add"(%v1_101, %v1_100) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_103 = "stablehlo.constant"() {value = dense<-0.07434735> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_104 = "stablehlo.multiply"(%v1_102, %v1_62) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_105 = "stablehlo.add"(%v1_104, %v1_103) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_106 = "stablehlo.constant"() {value = dense<0.21080637> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_107 = "stablehlo.multiply"(%v1_105, %v1_62) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_108 = "stablehlo.add"(%v1_107, %v1_106) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_109 = "stablehlo.constant"() {value = dense<1.0> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_110 = "stablehlo.divide"(%v1_109, %v1_3) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_111 = "stablehlo.constant"() {value = dense<0.05619331> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_112 = "stablehlo.subtract"(%v1_110, %v1_111) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_113 = "stablehlo.constant"() {value = dense<14702234624.0> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_114 = "stablehlo.constant"() {value = dense<-2054327552.0> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_115 = "stablehlo.multiply"(%v1_113, %v1_112) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_116 = "stablehlo.add"(%v1_115, %v1_114) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_117 = "stablehlo.constant"() {value = dense<96306824.0> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_118 = "stablehlo.multiply"(%v1_116, %v1_112) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_119 = "stablehlo.add"(%v1_118, %v1_117) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_120 = "stablehlo.constant"() {value = dense<-17748788.0> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_121 = "stablehlo.multiply"(%v1_119, %v1_112) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_122 = "stablehlo.add"(%v1_121, %v1_120) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_123 = "stablehlo.constant"() {value = dense<4370650.5> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_124 = "stablehlo.multiply"(%v1_122, %v1_112) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_125 = "stablehlo.add"(%v1_124, %v1_123) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_126 = "stablehlo.constant"() {value = dense<-735769.25> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_127 = "stablehlo.multiply"(%v1_125, %v1_112) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_128 = "stablehlo.add"(%v1_127, %v1_126) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_129 = "stablehlo.constant"() {value = dense<126213.586> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_130 = "stablehlo.multiply"(%v1_128, %v1_112) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_131 = "stablehlo.add"(%v1_130, %v1_129) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_132 = "stablehlo.constant"() {value = dense<-23605.295> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_133 = "stablehlo.multiply"(%v1_131, %v1_112) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_134 = "stablehlo.add"(%v1_133, %v1_132) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_135 = "stablehlo.constant"() {value = dense<4645.298> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_136 = "stablehlo.multiply"(%v1_134, %v1_112) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_137 = "stablehlo.add"(%v1_136, %v1_135) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_138 = "stablehlo.constant"() {value = dense<-965.6655> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_139 = "stablehlo.multiply"(%v1_137, %v1_112) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_140 = "stablehlo.add"(%v1_139, %v1_138) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_141 = "stablehlo.constant"() {value = dense<214.44122> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_142 = "stablehlo.multiply"(%v1_140, %v1_112) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_143 = "stablehlo.add"(%v1_142, %v1_141) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_144 = "stablehlo.constant"() {value = dense<-51.44375> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_145 = "stablehlo.multiply"(%v1_143, %v1_112) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_146 = "stablehlo.add"(%v1_145, %v1_144) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_147 = "stablehlo.constant"() {value = dense<13.529728> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_148 = "stablehlo.multiply"(%v1_146, %v1_112) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_149 = "stablehlo.add"(%v1_148, %v1_147) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_150 = "stablehlo.constant"() {value = dense<-3.9811137> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_151 = "stablehlo.multiply"(%v1_149, %v1_112) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_152 = "stablehlo.add"(%v1_151, %v1_150) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_153 = "stablehlo.constant"() {value = dense<1.349723> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_154 = "stablehlo.multiply"(%v1_152, %v1_112) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_155 = "stablehlo.add"(%v1_154, %v1_153) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_156 = "stablehlo.constant"() {value = dense<-0.5518724> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_157 = "stablehlo.multiply"(%v1_155, %v1_112) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_158 = "stablehlo.add"(%v1_157, %v1_156) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_159 = "stablehlo.constant"() {value = dense<0.29455972> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_160 = "stablehlo.multiply"(%v1_158, %v1_112) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_161 = "stablehlo.add"(%v1_160, %v1_159) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_162 = "stablehlo.constant"() {value = dense<-0.24254473> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_163 = "stablehlo.multiply"(%v1_161, %v1_112) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_164 = "stablehlo.add"(%v1_163, %v1_162) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_165 = "stablehlo.constant"() {value = dense<0.5495159> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_166 = "stablehlo.multiply"(%v1_164, %v1_112) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_167 = "stablehlo.add"(%v1_166, %v1_165) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_168 = "stablehlo.divide"(%v1_167, %v1_2) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_169 = "stablehlo.constant"() {value = dense<3.0> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_170 = "stablehlo.compare"(%v1_2, %v1_169) {comparison_direction = #stablehlo<comparison_direction LT>, compare_type = #stablehlo<comparison_type FLOAT>} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
    %v1_171 = "stablehlo.select"(%v1_170, %v1_108, %v1_168) : (tensor<2xi1>, tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_172 = "stablehlo.constant"() {value = dense<2.0> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_173 = "stablehlo.compare"(%v1_2, %v1_172) {comparison_direction = #stablehlo<comparison_direction LT>, compare_type = #stablehlo<comparison_type FLOAT>} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
    %v1_174 = "stablehlo.select"(%v1_173, %v1_60, %v1_171) : (tensor<2xi1>, tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_175 = "stablehlo.negate"(%v1_3) : (tensor<2xf32>) -> tensor<2xf32>
    %v1_176 = "stablehlo.exponential"(%v1_175) : (tensor<2xf32>) -> tensor<2xf32>
    %v1_177 = "stablehlo.multiply"(%v1_176, %v1_174) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_178 = "stablehlo.constant"() {value = dense<1.0> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_179 = "stablehlo.subtract"(%v1_178, %v1_177) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_180 = "stablehlo.negate"(%v1_179) : (tensor<2xf32>) -> tensor<2xf32>
    %v1_181 = "stablehlo.constant"() {value = dense<0.0> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_182 = "stablehlo.compare"(%arg0, %v1_181) {comparison_direction = #stablehlo<comparison_direction LT>, compare_type = #stablehlo<comparison_type FLOAT>} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
    %v1_183 = "stablehlo.select"(%v1_182, %v1_180, %v1_179) : (tensor<2xi1>, tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_184 = "stablehlo.multiply"(%arg0, %arg0) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_185 = "stablehlo.constant"() {value = dense<1.165856e-08> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_186 = "stablehlo.constant"() {value = dense<-1.5995397e-07> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_187 = "stablehlo.multiply"(%v1_185, %v1_184) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_188 = "stablehlo.add"(%v1_187, %v1_186) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_189 = "stablehlo.constant"() {value = dense<1.6437741e-06> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_190 = "stablehlo.multiply"(%v1_188, %v1_184) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_191 = "stablehlo.add"(%v1_190, %v1_189) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_192 = "stablehlo.constant"() {value = dense<-1.4924701e-05> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_193 = "stablehlo.multiply"(%v1_191, %v1_184) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_194 = "stablehlo.add"(%v1_193, %v1_192) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_195 = "stablehlo.constant"() {value = dense<0.000120553115> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_196 = "stablehlo.multiply"(%v1_194, %v1_184) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_197 = "stablehlo.add"(%v1_196, %v1_195) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_198 = "stablehlo.constant"() {value = dense<-0.0008548327> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_199 = "stablehlo.multiply"(%v1_197, %v1_184) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_200 = "stablehlo.add"(%v1_199, %v1_198) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_201 = "stablehlo.constant"() {value = dense<0.005223978> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_202 = "stablehlo.multiply"(%v1_200, %v1_184) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_203 = "stablehlo.add"(%v1_202, %v1_201) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_204 = "stablehlo.constant"() {value = dense<-0.026866172> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_205 = "stablehlo.multiply"(%v1_203, %v1_184) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_206 = "stablehlo.add"(%v1_205, %v1_204) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_207 = "stablehlo.constant"() {value = dense<0.11283792> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_208 = "stablehlo.multiply"(%v1_206, %v1_184) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_209 = "stablehlo.add"(%v1_208, %v1_207) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_210 = "stablehlo.constant"() {value = dense<-0.37612638> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_211 = "stablehlo.multiply"(%v1_209, %v1_184) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_212 = "stablehlo.add"(%v1_211, %v1_210) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_213 = "stablehlo.constant"() {value = dense<0.12837917> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_214 = "stablehlo.multiply"(%v1_212, %v1_184) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_215 = "stablehlo.add"(%v1_214, %v1_213) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_216 = "stablehlo.multiply"(%arg0, %v1_215) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_217 = "stablehlo.add"(%arg0, %v1_216) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %v1_218 = "stablehlo.constant"() {value = dense<0.75> : tensor<2xf32>} : () -> tensor<2xf32>
    %v1_219 = "stablehlo.compare"(%v1_0, %v1_218) {comparison_direction = #stablehlo<comparison_direction LT>, compare_type = #stablehlo<comparison_type FLOAT>} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
    %v1 = "stablehlo.select"(%v1_219, %v1_217, %v1_183) : (tensor<2xi1>, tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    "func.return"(%v1) : (tensor<2xf32>) -> ()
  }) {function_type = (tensor<2xf32>) -> (tensor<2xf32>), sym_name = "main"} : () -> ()
}) {sym_name = "topos"} : () -> ()
