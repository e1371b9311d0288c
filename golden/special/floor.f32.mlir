module @jit_floor attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<14xf32>) -> (tensor<14xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.floor %arg0 : tensor<14xf32>
    return %0 : tensor<14xf32>
  }
}
