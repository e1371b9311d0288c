module @jit__emitted_if attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<i1>, %arg1: tensor<3x2xf64>) -> (tensor<3x2xf64> {jax.result_info = "result"}) {
    %cst = stablehlo.constant dense<3.000000e+00> : tensor<3x2xf64>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<3x2xf64>
    %0 = "stablehlo.if"(%arg0) ({
      %1 = stablehlo.multiply %arg1, %cst : tensor<3x2xf64>
      stablehlo.return %1 : tensor<3x2xf64>
    }, {
      %1 = stablehlo.subtract %arg1, %cst_0 : tensor<3x2xf64>
      stablehlo.return %1 : tensor<3x2xf64>
    }) : (tensor<i1>) -> tensor<3x2xf64>
    return %0 : tensor<3x2xf64>
  }
}
