module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<5x6xi1>, %arg1: tensor<2x2xi32>) -> (tensor<2x2x3xi1> {jax.result_info = "result"}) {
    %0 = "stablehlo.gather"(%arg0, %arg1) <{dimension_numbers = #stablehlo.gather<offset_dims = [1, 2], start_index_map = [0, 1], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 2, 3>}> : (tensor<5x6xi1>, tensor<2x2xi32>) -> tensor<2x2x3xi1>
    return %0 : tensor<2x2x3xi1>
  }
}
