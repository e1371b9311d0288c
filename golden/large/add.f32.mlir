module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4096x4096xf32>, %arg1: tensor<4096x4096xf32>) -> (tensor<4096x4096xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.add %arg0, %arg1 : tensor<4096x4096xf32>
    return %0 : tensor<4096x4096xf32>
  }
}
