module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x3xi32>) -> (tensor<2x2xi32> {jax.result_info = "result"}) {
    %c = stablehlo.constant dense<0> : tensor<2xi64>
    %c_0 = stablehlo.constant dense<[2, 3]> : tensor<2xi64>
    %c_1 = stablehlo.constant dense<[1, 2]> : tensor<2xi64>
    %0 = stablehlo.real_dynamic_slice %arg0, %c, %c_0, %c_1 : (tensor<2x3xi32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<2x2xi32>
    return %0 : tensor<2x2xi32>
  }
}
