module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x5xi32> {mhlo.layout_mode = "{0,1}", mhlo.sharding = "{replicated}"}) -> (tensor<3x5xi32> {jax.result_info = "result", mhlo.layout_mode = "{0,1}", mhlo.sharding = "{replicated}"}) {
    %c = stablehlo.constant dense<2> : tensor<i32>
    %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<3x5xi32>
    %1 = stablehlo.multiply %arg0, %0 : tensor<3x5xi32>
    return %1 : tensor<3x5xi32>
  }
}
