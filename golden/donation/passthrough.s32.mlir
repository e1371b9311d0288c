module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<6xi32> {tf.aliasing_output = 0 : i32}) -> (tensor<6xi32> {jax.result_info = "result[0]"}, tensor<6xi32> {jax.result_info = "result[1]"}) {
    %c = stablehlo.constant dense<1> : tensor<i32>
    %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<6xi32>
    %1 = stablehlo.add %arg0, %0 : tensor<6xi32>
    return %arg0, %1 : tensor<6xi32>, tensor<6xi32>
  }
}
