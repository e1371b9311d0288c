module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4096x4096xi32>) -> (tensor<4096x4096xi32> {jax.result_info = "result"}) {
    %0 = stablehlo.reverse %arg0, dims = [0] : tensor<4096x4096xi32>
    return %0 : tensor<4096x4096xi32>
  }
}
