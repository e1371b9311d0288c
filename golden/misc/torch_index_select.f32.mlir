module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x3xf32>, %arg1: tensor<3xi32>) -> (tensor<2x3xf32> {jax.result_info = "result"}) {
    %0 = "stablehlo.torch_index_select"(%arg0, %arg1) <{batch_dims = 0 : i64, dim = 1 : i64}> : (tensor<2x3xf32>, tensor<3xi32>) -> tensor<2x3xf32>
    return %0 : tensor<2x3xf32>
  }
}
