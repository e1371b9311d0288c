module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x0xui64>) -> (tensor<0x3xui64> {jax.result_info = "result"}) {
    %0 = stablehlo.transpose %arg0, dims = [1, 0] : (tensor<3x0xui64>) -> tensor<0x3xui64>
    return %0 : tensor<0x3xui64>
  }
}
