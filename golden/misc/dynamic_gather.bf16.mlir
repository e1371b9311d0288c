module @jit_dyn_gather attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x3xbf16>, %arg1: tensor<2x2xi32>) -> (tensor<2x2xbf16> {jax.result_info = "result"}) {
    %c = stablehlo.constant dense<[1, 2]> : tensor<2xi64>
    %0 = "stablehlo.dynamic_gather"(%arg0, %arg1, %c) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0, 1], index_vector_dim = 1>}> : (tensor<2x3xbf16>, tensor<2x2xi32>, tensor<2xi64>) -> tensor<2x2xbf16>
    return %0 : tensor<2x2xbf16>
  }
}
