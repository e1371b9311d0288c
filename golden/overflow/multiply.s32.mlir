module @jit_mul attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<49xi32>, %arg1: tensor<49xi32>) -> (tensor<49xi32> {jax.result_info = "result"}) {
    %0 = stablehlo.multiply %arg0, %arg1 : tensor<49xi32>
    return %0 : tensor<49xi32>
  }
}
