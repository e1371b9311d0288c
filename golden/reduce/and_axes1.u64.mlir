module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x4x5xui64>) -> (tensor<3x5xui64> {jax.result_info = "result"}) {
    %c = stablehlo.constant dense<18446744073709551615> : tensor<ui64>
    %0 = stablehlo.reduce(%arg0 init: %c) applies stablehlo.and across dimensions = [1] : (tensor<3x4x5xui64>, tensor<ui64>) -> tensor<3x5xui64>
    return %0 : tensor<3x5xui64>
  }
}
