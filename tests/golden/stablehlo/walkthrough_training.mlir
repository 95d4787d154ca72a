module @topos {
  func.func @main(%arg0: tensor<2x2xf32>, %arg1: tensor<1x2xf32>) -> (tensor<f32>, tensor<2x2xf32>) {
    %v2 = stablehlo.dot_general %arg1, %arg0, contracting_dims = [1] x [0], precision = [HIGHEST, HIGHEST] : (tensor<1x2xf32>, tensor<2x2xf32>) -> tensor<1x2xf32>
    %v3 = stablehlo.tanh %v2 : tensor<1x2xf32>
    %v4 = stablehlo.multiply %v3, %v3 : tensor<1x2xf32>
    %v5_0 = stablehlo.constant dense<-0.0> : tensor<f32>
    %v5 = stablehlo.reduce(%v4 init: %v5_0) applies stablehlo.add across dimensions = [0, 1] : (tensor<1x2xf32>, tensor<f32>) -> tensor<f32>
    %v6 = stablehlo.constant dense<1.0> : tensor<f32>
    %v7 = stablehlo.broadcast_in_dim %v6, dims = [] : (tensor<f32>) -> tensor<1xf32>
    %v8 = stablehlo.broadcast_in_dim %v7, dims = [0] : (tensor<1xf32>) -> tensor<1x2xf32>
    %v9 = stablehlo.multiply %v8, %v3 : tensor<1x2xf32>
    %v10 = stablehlo.multiply %v8, %v3 : tensor<1x2xf32>
    %v11 = stablehlo.add %v9, %v10 : tensor<1x2xf32>
    %v12 = stablehlo.constant dense<1.0> : tensor<f32>
    %v13 = stablehlo.broadcast_in_dim %v12, dims = [] : (tensor<f32>) -> tensor<1xf32>
    %v14 = stablehlo.broadcast_in_dim %v13, dims = [0] : (tensor<1xf32>) -> tensor<1x2xf32>
    %v15 = stablehlo.multiply %v3, %v3 : tensor<1x2xf32>
    %v16 = stablehlo.subtract %v14, %v15 : tensor<1x2xf32>
    %v17 = stablehlo.multiply %v11, %v16 : tensor<1x2xf32>
    %v20 = stablehlo.transpose %arg1, dims = [1, 0] : (tensor<1x2xf32>) -> tensor<2x1xf32>
    %v21 = stablehlo.dot_general %v20, %v17, contracting_dims = [1] x [0], precision = [HIGHEST, HIGHEST] : (tensor<2x1xf32>, tensor<1x2xf32>) -> tensor<2x2xf32>
    return %v5, %v21 : tensor<f32>, tensor<2x2xf32>
  }
}
