module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x4xf32>, %arg1: tensor<3x1xi32>, %arg2: tensor<3x1xf32>) -> (tensor<3x4xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.iota dim = 0 : tensor<3xi64>
    %1 = stablehlo.broadcast_in_dim %0, dims = [0] : (tensor<3xi64>) -> tensor<3x1xi64>
    %c = stablehlo.constant dense<0> : tensor<i64>
    %2 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i64>) -> tensor<3x1xi64>
    %3 = stablehlo.compare LT, %1, %2, SIGNED : (tensor<3x1xi64>, tensor<3x1xi64>) -> tensor<3x1xi1>
    %c_0 = stablehlo.constant dense<3> : tensor<i64>
    %4 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i64>) -> tensor<3x1xi64>
    %5 = stablehlo.add %1, %4 : tensor<3x1xi64>
    %6 = stablehlo.select %3, %5, %1 : tensor<3x1xi1>, tensor<3x1xi64>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %7 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<i32>) -> tensor<3x1xi32>
    %8 = stablehlo.compare LT, %arg1, %7, SIGNED : (tensor<3x1xi32>, tensor<3x1xi32>) -> tensor<3x1xi1>
    %c_2 = stablehlo.constant dense<4> : tensor<i32>
    %9 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i32>) -> tensor<3x1xi32>
    %10 = stablehlo.add %arg1, %9 : tensor<3x1xi32>
    %11 = stablehlo.select %8, %10, %arg1 : tensor<3x1xi1>, tensor<3x1xi32>
    %12 = stablehlo.convert %6 : (tensor<3x1xi64>) -> tensor<3x1xi32>
    %13 = stablehlo.broadcast_in_dim %12, dims = [0, 1] : (tensor<3x1xi32>) -> tensor<3x1x1xi32>
    %14 = stablehlo.broadcast_in_dim %11, dims = [0, 1] : (tensor<3x1xi32>) -> tensor<3x1x1xi32>
    %15 = stablehlo.concatenate %13, %14, dim = 2 : (tensor<3x1x1xi32>, tensor<3x1x1xi32>) -> tensor<3x1x2xi32>
    %16 = "stablehlo.scatter"(%arg0, %15, %arg2) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0, 1], scatter_dims_to_operand_dims = [0, 1], index_vector_dim = 2>, unique_indices = false}> ({
    ^bb0(%arg3: tensor<f32>, %arg4: tensor<f32>):
      stablehlo.return %arg4 : tensor<f32>
    }) : (tensor<3x4xf32>, tensor<3x1x2xi32>, tensor<3x1xf32>) -> tensor<3x4xf32>
    return %16 : tensor<3x4xf32>
  }
}
