module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x4xf64>) -> (tensor<3x4xf64> {jax.result_info = "result"}) {
    %0 = stablehlo.slice %arg0 [0:3, 0:1] : (tensor<3x4xf64>) -> tensor<3x1xf64>
    %1 = stablehlo.broadcast_in_dim %0, dims = [0, 1] : (tensor<3x1xf64>) -> tensor<3x4xf64>
    return %1 : tensor<3x4xf64>
  }
}
