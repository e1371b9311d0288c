module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<i1>, %arg1: tensor<3x2xi32>) -> (tensor<3x2xi32> {jax.result_info = "result"}) {
    %0 = stablehlo.convert %arg0 : (tensor<i1>) -> tensor<i32>
    %1 = "stablehlo.case"(%0) ({
      %c = stablehlo.constant dense<1> : tensor<i32>
      %2 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<3x2xi32>
      %3 = stablehlo.subtract %arg1, %2 : tensor<3x2xi32>
      stablehlo.return %3 : tensor<3x2xi32>
    }, {
      %c = stablehlo.constant dense<3> : tensor<i32>
      %2 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<3x2xi32>
      %3 = stablehlo.multiply %arg1, %2 : tensor<3x2xi32>
      stablehlo.return %3 : tensor<3x2xi32>
    }) : (tensor<i32>) -> tensor<3x2xi32>
    return %1 : tensor<3x2xi32>
  }
}
