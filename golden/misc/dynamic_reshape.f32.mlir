module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x3xf32>) -> (tensor<3x2xf32> {jax.result_info = "result"}) {
    %c = stablehlo.constant dense<[3, 2]> : tensor<2xi64>
    %0 = stablehlo.dynamic_reshape %arg0, %c : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<3x2xf32>
    return %0 : tensor<3x2xf32>
  }
}
