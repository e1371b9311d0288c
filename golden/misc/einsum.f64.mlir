module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x3xf64>, %arg1: tensor<3x4xf64>) -> (tensor<4x2xf64> {jax.result_info = "result"}) {
    %0 = stablehlo.einsum %arg0, %arg1, config = "ij,jk->ki" : (tensor<2x3xf64>, tensor<3x4xf64>) -> tensor<4x2xf64>
    return %0 : tensor<4x2xf64>
  }
}
