module @jit_is_finite attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<7xf16>) -> (tensor<7xi1> {jax.result_info = "result"}) {
    %0 = stablehlo.is_finite %arg0 : (tensor<7xf16>) -> tensor<7xi1>
    return %0 : tensor<7xi1>
  }
}
