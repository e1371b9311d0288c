module @jit__lambda attributes {mhlo.num_partitions = 2 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xf32> {jax.buffer_donor = true, mhlo.sharding = "{devices=[2]<=[2]}"}) -> (tensor<4xi32> {jax.result_info = "result", mhlo.sharding = "{devices=[2]<=[2]}"}) {
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %1 = stablehlo.multiply %arg0, %0 : tensor<4xf32>
    %2 = stablehlo.convert %1 : (tensor<4xf32>) -> tensor<4xi32>
    return %2 : tensor<4xi32>
  }
}
