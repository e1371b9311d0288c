module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xf32>) -> (tensor<4xf32> {jax.result_info = "result"}) {
    %c = stablehlo.constant dense<0> : tensor<i64>
    %0:3 = stablehlo.while(%iterArg = %arg0, %iterArg_0 = %c, %iterArg_1 = %arg0) : tensor<4xf32>, tensor<i64>, tensor<4xf32>
    cond {
      %c_2 = stablehlo.constant dense<5> : tensor<i64>
      %1 = stablehlo.compare LT, %iterArg_0, %c_2, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
      stablehlo.return %1 : tensor<i1>
    } do {
      %1 = func.call @closed_call(%iterArg, %iterArg_1) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
      %c_2 = stablehlo.constant dense<1> : tensor<i64>
      %2 = stablehlo.add %iterArg_0, %c_2 : tensor<i64>
      stablehlo.return %iterArg, %2, %1 : tensor<4xf32>, tensor<i64>, tensor<4xf32>
    }
    return %0#2 : tensor<4xf32>
  }
  func.func private @closed_call(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>) -> tensor<4xf32> {
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %1 = stablehlo.multiply %arg1, %0 : tensor<4xf32>
    %2 = stablehlo.add %1, %arg0 : tensor<4xf32>
    return %2 : tensor<4xf32>
  }
}
