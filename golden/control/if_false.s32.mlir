module @jit__emitted_if attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<i1>, %arg1: tensor<3x2xi32>) -> (tensor<3x2xi32> {jax.result_info = "result"}) {
    %c = stablehlo.constant dense<3> : tensor<3x2xi32>
    %c_0 = stablehlo.constant dense<1> : tensor<3x2xi32>
    %0 = "stablehlo.if"(%arg0) ({
      %1 = stablehlo.multiply %arg1, %c : tensor<3x2xi32>
      stablehlo.return %1 : tensor<3x2xi32>
    }, {
      %1 = stablehlo.subtract %arg1, %c_0 : tensor<3x2xi32>
      stablehlo.return %1 : tensor<3x2xi32>
    }) : (tensor<i1>) -> tensor<3x2xi32>
    return %0 : tensor<3x2xi32>
  }
}
