module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x4xui16>) -> (tensor<3x4xui16> {jax.result_info = "result"}) {
    %0 = stablehlo.reverse %arg0, dims = [0, 1] : tensor<3x4xui16>
    return %0 : tensor<3x4xui16>
  }
}
