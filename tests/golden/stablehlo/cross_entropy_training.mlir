module @topos {
  func.func @main(%arg0: tensor<3x2xf64>, %arg1: tensor<2xf64>, %arg2: tensor<2xf64>) -> (tensor<f64>, tensor<3x2xf64>) {
    %v3_0 = stablehlo.convert %arg1 : (tensor<2xf64>) -> tensor<2xi64>
    %v3 = "stablehlo.gather"(%arg0, %v3_0) {dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 2>, indices_are_sorted = false} : (tensor<3x2xf64>, tensor<2xi64>) -> tensor<2x2xf64>
    %v4_0 = stablehlo.iota dim = 1 : tensor<2x2xf64>
    %v4_1 = stablehlo.broadcast_in_dim %arg2, dims = [0] : (tensor<2xf64>) -> tensor<2x2xf64>
    %v4_2 = stablehlo.compare EQ, %v4_1, %v4_0, FLOAT : (tensor<2x2xf64>, tensor<2x2xf64>) -> tensor<2x2xi1>
    %v4 = stablehlo.convert %v4_2 : (tensor<2x2xi1>) -> tensor<2x2xf64>
    %v5_0 = stablehlo.constant dense<0xFFF0000000000000> : tensor<f64>
    %v5_1 = stablehlo.reduce(%v3 init: %v5_0) applies stablehlo.maximum across dimensions = [1] : (tensor<2x2xf64>, tensor<f64>) -> tensor<2xf64>
    %v5_2 = stablehlo.broadcast_in_dim %v5_1, dims = [0] : (tensor<2xf64>) -> tensor<2x2xf64>
    %v5_3 = stablehlo.subtract %v3, %v5_2 : tensor<2x2xf64>
    %v5_4 = stablehlo.exponential %v5_3 : tensor<2x2xf64>
    %v5_5 = stablehlo.constant dense<-0.0> : tensor<f64>
    %v5_6 = stablehlo.reduce(%v5_4 init: %v5_5) applies stablehlo.add across dimensions = [1] : (tensor<2x2xf64>, tensor<f64>) -> tensor<2xf64>
    %v5_7 = stablehlo.log %v5_6 : tensor<2xf64>
    %v5_8 = stablehlo.add %v5_1, %v5_7 : tensor<2xf64>
    %v5_9 = stablehlo.is_finite %v5_1 : (tensor<2xf64>) -> tensor<2xi1>
    %v5_10 = stablehlo.select %v5_9, %v5_8, %v5_1 : tensor<2xi1>, tensor<2xf64>
    %v5_11 = stablehlo.broadcast_in_dim %v5_10, dims = [0] : (tensor<2xf64>) -> tensor<2x2xf64>
    %v5 = stablehlo.subtract %v3, %v5_11 : tensor<2x2xf64>
    %v6 = stablehlo.multiply %v4, %v5 : tensor<2x2xf64>
    %v7_0 = stablehlo.constant dense<-0.0> : tensor<f64>
    %v7 = stablehlo.reduce(%v6 init: %v7_0) applies stablehlo.add across dimensions = [0, 1] : (tensor<2x2xf64>, tensor<f64>) -> tensor<f64>
    %v8 = stablehlo.negate %v7 : tensor<f64>
    %v9 = stablehlo.constant dense<1.0> : tensor<f64>
    %v10 = stablehlo.negate %v9 : tensor<f64>
    %v11 = stablehlo.broadcast_in_dim %v10, dims = [] : (tensor<f64>) -> tensor<2xf64>
    %v12 = stablehlo.broadcast_in_dim %v11, dims = [0] : (tensor<2xf64>) -> tensor<2x2xf64>
    %v14 = stablehlo.multiply %v12, %v4 : tensor<2x2xf64>
    %v15_0 = stablehlo.constant dense<-0.0> : tensor<f64>
    %v15 = stablehlo.reduce(%v14 init: %v15_0) applies stablehlo.add across dimensions = [1] : (tensor<2x2xf64>, tensor<f64>) -> tensor<2xf64>
    %v16 = stablehlo.broadcast_in_dim %v15, dims = [0] : (tensor<2xf64>) -> tensor<2x2xf64>
    %v17 = stablehlo.exponential %v5 : tensor<2x2xf64>
    %v18 = stablehlo.multiply %v17, %v16 : tensor<2x2xf64>
    %v19 = stablehlo.subtract %v14, %v18 : tensor<2x2xf64>
    %v20_0 = stablehlo.constant dense<0.0> : tensor<3x2xf64>
    %v20_1 = stablehlo.convert %arg1 : (tensor<2xf64>) -> tensor<2xi64>
    %v20 = "stablehlo.scatter"(%v20_0, %v20_1, %v19) ({
    ^bb0(%v20_2: tensor<f64>, %v20_3: tensor<f64>):
      %v20_4 = stablehlo.add %v20_2, %v20_3 : tensor<f64>
      stablehlo.return %v20_4 : tensor<f64>
    }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, indices_are_sorted = false, unique_indices = false} : (tensor<3x2xf64>, tensor<2xi64>, tensor<2x2xf64>) -> tensor<3x2xf64>
    return %v8, %v20 : tensor<f64>, tensor<3x2xf64>
  }
}
