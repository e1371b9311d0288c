module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x3xbf16>) -> (tensor<i32> {jax.result_info = "result"}) {
    %0 = stablehlo.get_dimension_size %arg0, dim = 1 : (tensor<2x3xbf16>) -> tensor<i32>
    return %0 : tensor<i32>
  }
}
