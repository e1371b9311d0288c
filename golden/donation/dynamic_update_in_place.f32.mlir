module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8x4xf32> {tf.aliasing_output = 0 : i32}, %arg1: tensor<2x4xf32>) -> (tensor<8x4xf32> {jax.result_info = "result"}) {
    %c = stablehlo.constant dense<3> : tensor<i64>
    %c_0 = stablehlo.constant dense<0> : tensor<i64>
    %0 = stablehlo.dynamic_update_slice %arg0, %arg1, %c, %c_0 : (tensor<8x4xf32>, tensor<2x4xf32>, tensor<i64>, tensor<i64>) -> tensor<8x4xf32>
    return %0 : tensor<8x4xf32>
  }
}
