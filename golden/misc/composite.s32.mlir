module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x3xi32>) -> (tensor<2x3xi32> {jax.result_info = "result"}) {
    %0 = stablehlo.composite "pjrt_cts.double_plus_one" %arg0 {decomposition = @pjrt_cts.double_plus_one} : (tensor<2x3xi32>) -> tensor<2x3xi32>
    return %0 : tensor<2x3xi32>
  }
  func.func private @pjrt_cts.double_plus_one(%arg0: tensor<2x3xi32>) -> tensor<2x3xi32> {
    %c = stablehlo.constant dense<2> : tensor<i32>
    %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<2x3xi32>
    %1 = stablehlo.multiply %arg0, %0 : tensor<2x3xi32>
    %c_0 = stablehlo.constant dense<1> : tensor<i32>
    %2 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<2x3xi32>
    %3 = stablehlo.add %1, %2 : tensor<2x3xi32>
    return %3 : tensor<2x3xi32>
  }
}
