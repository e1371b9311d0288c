module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<f32>, %arg1: tensor<3x5xf32>, %arg2: tensor<f32>) -> (tensor<3x5xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.broadcast_in_dim %arg0, dims = [] : (tensor<f32>) -> tensor<3x5xf32>
    %1 = stablehlo.broadcast_in_dim %arg2, dims = [] : (tensor<f32>) -> tensor<3x5xf32>
    %2 = stablehlo.clamp %0, %arg1, %1 : tensor<3x5xf32>
    return %2 : tensor<3x5xf32>
  }
}
