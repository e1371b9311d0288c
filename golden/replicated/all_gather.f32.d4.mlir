module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 4 : i32} {
  func.func public @main(%arg0: tensor<2x3xf32>) -> (tensor<8x3xf32> {jax.result_info = "result"}) {
    %0 = "stablehlo.all_gather"(%arg0) <{all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>}> : (tensor<2x3xf32>) -> tensor<8x3xf32>
    return %0 : tensor<8x3xf32>
  }
}
