module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x3xi32> {tf.aliasing_output = 0 : i32}) -> (tensor<4x3xi32> {jax.result_info = "result"}) {
    %c = stablehlo.constant dense<2> : tensor<i32>
    %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<4x3xi32>
    %1 = stablehlo.multiply %arg0, %0 : tensor<4x3xi32>
    return %1 : tensor<4x3xi32>
  }
}
