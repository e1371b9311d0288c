module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x4xf8E5M2>) -> (tensor<4x8xf8E5M2> {jax.result_info = "result"}) {
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f8E5M2>
    %0 = stablehlo.pad %arg0, %cst, low = [1, 0], high = [0, 1], interior = [0, 1] : (tensor<3x4xf8E5M2>, tensor<f8E5M2>) -> tensor<4x8xf8E5M2>
    return %0 : tensor<4x8xf8E5M2>
  }
}
