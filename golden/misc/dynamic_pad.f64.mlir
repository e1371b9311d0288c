module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x3xf64>) -> (tensor<3x7xf64> {jax.result_info = "result"}) {
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f64>
    %c = stablehlo.constant dense<[1, 0]> : tensor<2xi64>
    %c_0 = stablehlo.constant dense<[0, 2]> : tensor<2xi64>
    %c_1 = stablehlo.constant dense<[0, 1]> : tensor<2xi64>
    %0 = stablehlo.dynamic_pad %arg0, %cst, %c, %c_0, %c_1 : (tensor<2x3xf64>, tensor<f64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<3x7xf64>
    return %0 : tensor<3x7xf64>
  }
}
