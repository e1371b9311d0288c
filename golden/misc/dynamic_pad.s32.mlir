module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x3xi32>) -> (tensor<3x7xi32> {jax.result_info = "result"}) {
    %c = stablehlo.constant dense<1> : tensor<i32>
    %c_0 = stablehlo.constant dense<[1, 0]> : tensor<2xi64>
    %c_1 = stablehlo.constant dense<[0, 2]> : tensor<2xi64>
    %c_2 = stablehlo.constant dense<[0, 1]> : tensor<2xi64>
    %0 = stablehlo.dynamic_pad %arg0, %c, %c_0, %c_1, %c_2 : (tensor<2x3xi32>, tensor<i32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<3x7xi32>
    return %0 : tensor<3x7xi32>
  }
}
