module @topos {
  func.func @main(%arg0: tensor<1x6xf64>) -> (tensor<f64>, tensor<1x6xf64>) {
    %v1_0 = stablehlo.slice %arg0 [0:1, 0:3:2] : (tensor<1x6xf64>) -> tensor<1x2xf64>
    %v1_1 = stablehlo.reshape %v1_0 : (tensor<1x2xf64>) -> tensor<1x2x1xf64>
    %v1_2 = stablehlo.slice %arg0 [0:1, 2:5:2] : (tensor<1x6xf64>) -> tensor<1x2xf64>
    %v1_3 = stablehlo.reshape %v1_2 : (tensor<1x2xf64>) -> tensor<1x2x1xf64>
    %v1 = stablehlo.concatenate %v1_1, %v1_3, dim = 2 : (tensor<1x2x1xf64>, tensor<1x2x1xf64>) -> tensor<1x2x2xf64>
    %v2 = stablehlo.multiply %v1, %v1 : tensor<1x2x2xf64>
    %v3_0 = stablehlo.constant dense<-0.0> : tensor<f64>
    %v3 = stablehlo.reduce(%v2 init: %v3_0) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<1x2x2xf64>, tensor<f64>) -> tensor<f64>
    %v4 = stablehlo.constant dense<1.0> : tensor<f64>
    %v5 = stablehlo.broadcast_in_dim %v4, dims = [] : (tensor<f64>) -> tensor<1xf64>
    %v6 = stablehlo.broadcast_in_dim %v5, dims = [0] : (tensor<1xf64>) -> tensor<1x2xf64>
    %v7 = stablehlo.broadcast_in_dim %v6, dims = [0, 1] : (tensor<1x2xf64>) -> tensor<1x2x2xf64>
    %v8 = stablehlo.multiply %v7, %v1 : tensor<1x2x2xf64>
    %v9 = stablehlo.multiply %v7, %v1 : tensor<1x2x2xf64>
    %v10 = stablehlo.add %v8, %v9 : tensor<1x2x2xf64>
    %v11_0 = stablehlo.slice %v10 [0:1, 0:2, 1:2] : (tensor<1x2x2xf64>) -> tensor<1x2x1xf64>
    %v11_1 = stablehlo.reshape %v11_0 : (tensor<1x2x1xf64>) -> tensor<1x2xf64>
    %v11_2 = stablehlo.constant dense<0.0> : tensor<f64>
    %v11_3 = stablehlo.pad %v11_1, %v11_2, low = [0, 2], high = [0, 1], interior = [0, 1] : (tensor<1x2xf64>, tensor<f64>) -> tensor<1x6xf64>
    %v11_4 = stablehlo.slice %v10 [0:1, 0:2, 0:1] : (tensor<1x2x2xf64>) -> tensor<1x2x1xf64>
    %v11_5 = stablehlo.reshape %v11_4 : (tensor<1x2x1xf64>) -> tensor<1x2xf64>
    %v11_6 = stablehlo.constant dense<0.0> : tensor<f64>
    %v11_7 = stablehlo.pad %v11_5, %v11_6, low = [0, 0], high = [0, 3], interior = [0, 1] : (tensor<1x2xf64>, tensor<f64>) -> tensor<1x6xf64>
    %v11 = stablehlo.add %v11_3, %v11_7 : tensor<1x6xf64>
    return %v3, %v11 : tensor<f64>, tensor<1x6xf64>
  }
}
