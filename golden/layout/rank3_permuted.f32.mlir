module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x3x4xf32> {mhlo.layout_mode = "{1,0,2}", mhlo.sharding = "{replicated}"}) -> (tensor<2x3x4xf32> {jax.result_info = "result", mhlo.layout_mode = "{1,0,2}", mhlo.sharding = "{replicated}"}) {
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x3x4xf32>
    %1 = stablehlo.subtract %arg0, %0 : tensor<2x3x4xf32>
    return %1 : tensor<2x3x4xf32>
  }
}
