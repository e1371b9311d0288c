module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x3xf32>, %arg1: tensor<3x4xf32>) -> (tensor<2x3xf32> {jax.result_info = "result[0]"}, tensor<3x4xf32> {jax.result_info = "result[1]"}) {
    %0:2 = stablehlo.optimization_barrier %arg0, %arg1 : tensor<2x3xf32>, tensor<3x4xf32>
    return %0#0, %0#1 : tensor<2x3xf32>, tensor<3x4xf32>
  }
}
