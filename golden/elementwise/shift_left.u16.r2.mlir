module @jit_shift_left attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x5xui16>, %arg1: tensor<3x5xui16>) -> (tensor<3x5xui16> {jax.result_info = "result"}) {
    %0 = stablehlo.shift_left %arg0, %arg1 : tensor<3x5xui16>
    return %0 : tensor<3x5xui16>
  }
}
