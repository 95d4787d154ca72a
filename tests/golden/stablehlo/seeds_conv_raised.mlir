module @topos {
  func.func @main(%arg0: tensor<1x1x6x6xf32>, %arg1: tensor<2x1x3x3xf32>, %arg2: tensor<2xf32>) -> (tensor<f32>) {
    %v7 = stablehlo.transpose %arg1, dims = [1, 2, 3, 0] : (tensor<2x1x3x3xf32>) -> tensor<1x3x3x2xf32>
    %v8 = stablehlo.reshape %v7 : (tensor<1x3x3x2xf32>) -> tensor<9x2xf32>
    %v9_0 = stablehlo.reshape %v8 : (tensor<9x2xf32>) -> tensor<1x3x3x2xf32>
    %v9_1 = "stablehlo.convolution"(%arg0, %v9_0) {window_strides = array<i64: 1, 1>, padding = dense<[[0, 0], [0, 0]]> : tensor<2x2xi64>, lhs_dilation = array<i64: 1, 1>, rhs_dilation = array<i64: 1, 1>, dimension_numbers = #stablehlo.conv<[b, f, 0, 1]x[i, 0, 1, o]->[b, 0, 1, f]>, feature_group_count = 1 : i64, batch_group_count = 1 : i64, precision_config = [#stablehlo<precision HIGHEST>, #stablehlo<precision HIGHEST>]} : (tensor<1x1x6x6xf32>, tensor<1x3x3x2xf32>) -> tensor<1x4x4x2xf32>
    %v9 = stablehlo.reshape %v9_1 : (tensor<1x4x4x2xf32>) -> tensor<16x2xf32>
    %v10 = stablehlo.broadcast_in_dim %arg2, dims = [1] : (tensor<2xf32>) -> tensor<16x2xf32>
    %v11 = stablehlo.add %v9, %v10 : tensor<16x2xf32>
    %v12 = stablehlo.reshape %v11 : (tensor<16x2xf32>) -> tensor<1x4x4x2xf32>
    %v13 = stablehlo.transpose %v12, dims = [0, 3, 1, 2] : (tensor<1x4x4x2xf32>) -> tensor<1x2x4x4xf32>
    %v14 = stablehlo.constant dense<0.0> : tensor<1x2x4x4xf32>
    %v15 = stablehlo.maximum %v13, %v14 : tensor<1x2x4x4xf32>
    %v27_0 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %v27 = "stablehlo.reduce_window"(%v15, %v27_0) ({
    ^bb0(%v27_1: tensor<f32>, %v27_2: tensor<f32>):
      %v27_3 = stablehlo.maximum %v27_1, %v27_2 : tensor<f32>
      stablehlo.return %v27_3 : tensor<f32>
    }) {window_dimensions = array<i64: 1, 1, 2, 2>, window_strides = array<i64: 1, 1, 2, 2>, window_dilations = array<i64: 1, 1, 1, 1>} : (tensor<1x2x4x4xf32>, tensor<f32>) -> tensor<1x2x2x2xf32>
    %v28_0 = stablehlo.constant dense<-0.0> : tensor<f32>
    %v28 = stablehlo.reduce(%v27 init: %v28_0) applies stablehlo.add across dimensions = [0, 1, 2, 3] : (tensor<1x2x2x2xf32>, tensor<f32>) -> tensor<f32>
    return %v28 : tensor<f32>
  }
}
