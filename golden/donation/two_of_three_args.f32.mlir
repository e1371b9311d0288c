module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3xf32> {tf.aliasing_output = 0 : i32}, %arg1: tensor<3xf32> {tf.aliasing_output = 1 : i32}, %arg2: tensor<3xf32>) -> (tensor<3xf32> {jax.result_info = "result[0]"}, tensor<3xf32> {jax.result_info = "result[1]"}) {
    %0 = stablehlo.add %arg0, %arg2 : tensor<3xf32>
    %1 = stablehlo.multiply %arg1, %arg2 : tensor<3xf32>
    return %0, %1 : tensor<3xf32>, tensor<3xf32>
  }
}
