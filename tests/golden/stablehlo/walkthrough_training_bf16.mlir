module @topos {
  func.func @main(%arg0: tensor<2x2xbf16>, %arg1: tensor<1x2xbf16>) -> (tensor<bf16>, tensor<2x2xbf16>) {
    %v2_0 = stablehlo.convert %arg1 : (tensor<1x2xbf16>) -> tensor<1x2xf32>
    %v2_1 = stablehlo.convert %arg0 : (tensor<2x2xbf16>) -> tensor<2x2xf32>
    %v2_2 = stablehlo.dot_general %v2_0, %v2_1, contracting_dims = [1] x [0], precision = [HIGHEST, HIGHEST] : (tensor<1x2xf32>, tensor<2x2xf32>) -> tensor<1x2xf32>
    %v2 = stablehlo.convert %v2_2 : (tensor<1x2xf32>) -> tensor<1x2xbf16>
    %v3 = stablehlo.constant dense<0.1> : tensor<bf16>
    %v4_0 = stablehlo.convert %v3 : (tensor<bf16>) -> tensor<f32>
    %v4_1 = stablehlo.broadcast_in_dim %v4_0, dims = [] : (tensor<f32>) -> tensor<1xf32>
    %v4 = stablehlo.convert %v4_1 : (tensor<1xf32>) -> tensor<1xbf16>
    %v5_0 = stablehlo.convert %v4 : (tensor<1xbf16>) -> tensor<1xf32>
    %v5_1 = stablehlo.broadcast_in_dim %v5_0, dims = [0] : (tensor<1xf32>) -> tensor<1x2xf32>
    %v5 = stablehlo.convert %v5_1 : (tensor<1x2xf32>) -> tensor<1x2xbf16>
    %v6_0 = stablehlo.convert %v2 : (tensor<1x2xbf16>) -> tensor<1x2xf32>
    %v6_1 = stablehlo.convert %v5 : (tensor<1x2xbf16>) -> tensor<1x2xf32>
    %v6_2 = stablehlo.add %v6_0, %v6_1 : tensor<1x2xf32>
    %v6 = stablehlo.convert %v6_2 : (tensor<1x2xf32>) -> tensor<1x2xbf16>
    %v7_0 = stablehlo.convert %v6 : (tensor<1x2xbf16>) -> tensor<1x2xf32>
    %v7_1 = stablehlo.tanh %v7_0 : tensor<1x2xf32>
    %v7 = stablehlo.convert %v7_1 : (tensor<1x2xf32>) -> tensor<1x2xbf16>
    %v8_0 = stablehlo.convert %v7 : (tensor<1x2xbf16>) -> tensor<1x2xf32>
    %v8_1 = stablehlo.multiply %v8_0, %v8_0 : tensor<1x2xf32>
    %v8 = stablehlo.convert %v8_1 : (tensor<1x2xf32>) -> tensor<1x2xbf16>
    %v9_0 = stablehlo.convert %v8 : (tensor<1x2xbf16>) -> tensor<1x2xf32>
    %v9_1 = stablehlo.constant dense<-0.0> : tensor<f32>
    %v9_2 = stablehlo.reduce(%v9_0 init: %v9_1) applies stablehlo.add across dimensions = [0, 1] : (tensor<1x2xf32>, tensor<f32>) -> tensor<f32>
    %v9 = stablehlo.convert %v9_2 : (tensor<f32>) -> tensor<bf16>
    %v10 = stablehlo.constant dense<1.0> : tensor<bf16>
    %v11_0 = stablehlo.convert %v10 : (tensor<bf16>) -> tensor<f32>
    %v11_1 = stablehlo.broadcast_in_dim %v11_0, dims = [] : (tensor<f32>) -> tensor<1xf32>
    %v11 = stablehlo.convert %v11_1 : (tensor<1xf32>) -> tensor<1xbf16>
    %v12_0 = stablehlo.convert %v11 : (tensor<1xbf16>) -> tensor<1xf32>
    %v12_1 = stablehlo.broadcast_in_dim %v12_0, dims = [0] : (tensor<1xf32>) -> tensor<1x2xf32>
    %v12 = stablehlo.convert %v12_1 : (tensor<1x2xf32>) -> tensor<1x2xbf16>
    %v13_0 = stablehlo.convert %v12 : (tensor<1x2xbf16>) -> tensor<1x2xf32>
    %v13_1 = stablehlo.convert %v7 : (tensor<1x2xbf16>) -> tensor<1x2xf32>
    %v13_2 = stablehlo.multiply %v13_0, %v13_1 : tensor<1x2xf32>
    %v13 = stablehlo.convert %v13_2 : (tensor<1x2xf32>) -> tensor<1x2xbf16>
    %v14_0 = stablehlo.convert %v12 : (tensor<1x2xbf16>) -> tensor<1x2xf32>
    %v14_1 = stablehlo.convert %v7 : (tensor<1x2xbf16>) -> tensor<1x2xf32>
    %v14_2 = stablehlo.multiply %v14_0, %v14_1 : tensor<1x2xf32>
    %v14 = stablehlo.convert %v14_2 : (tensor<1x2xf32>) -> tensor<1x2xbf16>
    %v15_0 = stablehlo.convert %v13 : (tensor<1x2xbf16>) -> tensor<1x2xf32>
    %v15_1 = stablehlo.convert %v14 : (tensor<1x2xbf16>) -> tensor<1x2xf32>
    %v15_2 = stablehlo.add %v15_0, %v15_1 : tensor<1x2xf32>
    %v15 = stablehlo.convert %v15_2 : (tensor<1x2xf32>) -> tensor<1x2xbf16>
    %v16 = stablehlo.constant dense<1.0> : tensor<bf16>
    %v17_0 = stablehlo.convert %v16 : (tensor<bf16>) -> tensor<f32>
    %v17_1 = stablehlo.broadcast_in_dim %v17_0, dims = [] : (tensor<f32>) -> tensor<1xf32>
    %v17 = stablehlo.convert %v17_1 : (tensor<1xf32>) -> tensor<1xbf16>
    %v18_0 = stablehlo.convert %v17 : (tensor<1xbf16>) -> tensor<1xf32>
    %v18_1 = stablehlo.broadcast_in_dim %v18_0, dims = [0] : (tensor<1xf32>) -> tensor<1x2xf32>
    %v18 = stablehlo.convert %v18_1 : (tensor<1x2xf32>) -> tensor<1x2xbf16>
    %v19_0 = stablehlo.convert %v7 : (tensor<1x2xbf16>) -> tensor<1x2xf32>
    %v19_1 = stablehlo.multiply %v19_0, %v19_0 : tensor<1x2xf32>
    %v19 = stablehlo.convert %v19_1 : (tensor<1x2xf32>) -> tensor<1x2xbf16>
    %v20_0 = stablehlo.convert %v18 : (tensor<1x2xbf16>) -> tensor<1x2xf32>
    %v20_1 = stablehlo.convert %v19 : (tensor<1x2xbf16>) -> tensor<1x2xf32>
    %v20_2 = stablehlo.subtract %v20_0, %v20_1 : tensor<1x2xf32>
    %v20 = stablehlo.convert %v20_2 : (tensor<1x2xf32>) -> tensor<1x2xbf16>
    %v21_0 = stablehlo.convert %v15 : (tensor<1x2xbf16>) -> tensor<1x2xf32>
    %v21_1 = stablehlo.convert %v20 : (tensor<1x2xbf16>) -> tensor<1x2xf32>
    %v21_2 = stablehlo.multiply %v21_0, %v21_1 : tensor<1x2xf32>
    %v21 = stablehlo.convert %v21_2 : (tensor<1x2xf32>) -> tensor<1x2xbf16>
    %v26_0 = stablehlo.convert %arg1 : (tensor<1x2xbf16>) -> tensor<1x2xf32>
    %v26_1 = stablehlo.transpose %v26_0, dims = [1, 0] : (tensor<1x2xf32>) -> tensor<2x1xf32>
    %v26 = stablehlo.convert %v26_1 : (tensor<2x1xf32>) -> tensor<2x1xbf16>
    %v27_0 = stablehlo.convert %v26 : (tensor<2x1xbf16>) -> tensor<2x1xf32>
    %v27_1 = stablehlo.convert %v21 : (tensor<1x2xbf16>) -> tensor<1x2xf32>
    %v27_2 = stablehlo.dot_general %v27_0, %v27_1, contracting_dims = [1] x [0], precision = [HIGHEST, HIGHEST] : (tensor<2x1xf32>, tensor<1x2xf32>) -> tensor<2x2xf32>
    %v27 = stablehlo.convert %v27_2 : (tensor<2x2xf32>) -> tensor<2x2xbf16>
    return %v9, %v27 : tensor<bf16>, tensor<2x2xbf16>
  }
}
