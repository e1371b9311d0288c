module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x5xf16>) -> (tensor<3x5xf16> {jax.result_info = "result"}) {
    %0 = stablehlo.round_nearest_afz %arg0 : tensor<3x5xf16>
    return %0 : tensor<3x5xf16>
  }
}
