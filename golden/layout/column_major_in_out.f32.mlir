module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x5xf32> {mhlo.layout_mode = "{0,1}", mhlo.sharding = "{replicated}"}) -> (tensor<3x5xf32> {jax.result_info = "result", mhlo.layout_mode = "{0,1}", mhlo.sharding = "{replicated}"}) {
    %0 = stablehlo.reverse %arg0, dims = [0] : tensor<3x5xf32>
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<3x5xf32>
    %2 = stablehlo.multiply %0, %1 : tensor<3x5xf32>
    return %2 : tensor<3x5xf32>
  }
}
