module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x4xf64>) -> (tensor<2x2xf64> {jax.result_info = "result"}) {
    %0 = stablehlo.slice %arg0 [1:3, 0:4:2] : (tensor<3x4xf64>) -> tensor<2x2xf64>
    return %0 : tensor<2x2xf64>
  }
}
