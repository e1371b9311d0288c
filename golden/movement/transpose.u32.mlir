module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x4xui32>) -> (tensor<4x3xui32> {jax.result_info = "result"}) {
    %0 = stablehlo.transpose %arg0, dims = [1, 0] : (tensor<3x4xui32>) -> tensor<4x3xui32>
    return %0 : tensor<4x3xui32>
  }
}
