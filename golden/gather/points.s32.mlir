module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<5x6xi32>, %arg1: tensor<3x2xi32>) -> (tensor<3xi32> {jax.result_info = "result"}) {
    %0 = stablehlo.slice %arg1 [0:3, 0:1] : (tensor<3x2xi32>) -> tensor<3x1xi32>
    %1 = stablehlo.reshape %0 : (tensor<3x1xi32>) -> tensor<3xi32>
    %2 = stablehlo.slice %arg1 [0:3, 1:2] : (tensor<3x2xi32>) -> tensor<3x1xi32>
    %3 = stablehlo.reshape %2 : (tensor<3x1xi32>) -> tensor<3xi32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %4 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<3xi32>
    %5 = stablehlo.compare LT, %1, %4, SIGNED : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi1>
    %c_0 = stablehlo.constant dense<5> : tensor<i32>
    %6 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<3xi32>
    %7 = stablehlo.add %1, %6 : tensor<3xi32>
    %8 = stablehlo.select %5, %7, %1 : tensor<3xi1>, tensor<3xi32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %9 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<i32>) -> tensor<3xi32>
    %10 = stablehlo.compare LT, %3, %9, SIGNED : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi1>
    %c_2 = stablehlo.constant dense<6> : tensor<i32>
    %11 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i32>) -> tensor<3xi32>
    %12 = stablehlo.add %3, %11 : tensor<3xi32>
    %13 = stablehlo.select %10, %12, %3 : tensor<3xi1>, tensor<3xi32>
    %14 = stablehlo.broadcast_in_dim %8, dims = [0] : (tensor<3xi32>) -> tensor<3x1xi32>
    %15 = stablehlo.broadcast_in_dim %13, dims = [0] : (tensor<3xi32>) -> tensor<3x1xi32>
    %16 = stablehlo.concatenate %14, %15, dim = 1 : (tensor<3x1xi32>, tensor<3x1xi32>) -> tensor<3x2xi32>
    %17 = "stablehlo.gather"(%arg0, %16) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0, 1], start_index_map = [0, 1], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1, 1>}> : (tensor<5x6xi32>, tensor<3x2xi32>) -> tensor<3xi32>
    return %17 : tensor<3xi32>
  }
}
