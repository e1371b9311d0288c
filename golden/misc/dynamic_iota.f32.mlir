module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x3xf32>) -> (tensor<2x3xf32> {jax.result_info = "result"}) {
    %c = stablehlo.constant dense<[2, 3]> : tensor<2xi64>
    %0 = stablehlo.dynamic_iota %c, dim = 1 : (tensor<2xi64>) -> tensor<2x3xf32>
    %1 = stablehlo.add %arg0, %0 : tensor<2x3xf32>
    return %1 : tensor<2x3xf32>
  }
}
