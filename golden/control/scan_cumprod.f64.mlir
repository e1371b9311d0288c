module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<6xf64>) -> (tensor<6xf64> {jax.result_info = "result"}) {
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f64>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %0 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f64>) -> tensor<6xf64>
    %c = stablehlo.constant dense<0> : tensor<i64>
    %1:4 = stablehlo.while(%iterArg = %arg0, %iterArg_1 = %c, %iterArg_2 = %cst, %iterArg_3 = %0) : tensor<6xf64>, tensor<i64>, tensor<f64>, tensor<6xf64>
    cond {
      %c_4 = stablehlo.constant dense<6> : tensor<i64>
      %2 = stablehlo.compare LT, %iterArg_1, %c_4, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
      stablehlo.return %2 : tensor<i1>
    } do {
      %2 = func.call @dynamic_index_in_dim(%iterArg, %iterArg_1) : (tensor<6xf64>, tensor<i64>) -> tensor<f64>
      %3:2 = func.call @closed_call(%iterArg_2, %2) : (tensor<f64>, tensor<f64>) -> (tensor<f64>, tensor<f64>)
      %4 = func.call @dynamic_update_index_in_dim(%iterArg_3, %3#1, %iterArg_1) : (tensor<6xf64>, tensor<f64>, tensor<i64>) -> tensor<6xf64>
      %c_4 = stablehlo.constant dense<1> : tensor<i64>
      %5 = stablehlo.add %iterArg_1, %c_4 : tensor<i64>
      stablehlo.return %iterArg, %5, %3#0, %4 : tensor<6xf64>, tensor<i64>, tensor<f64>, tensor<6xf64>
    }
    return %1#3 : tensor<6xf64>
  }
  func.func private @dynamic_index_in_dim(%arg0: tensor<6xf64>, %arg1: tensor<i64>) -> tensor<f64> {
    %0 = stablehlo.dynamic_slice %arg0, %arg1, sizes = [1] : (tensor<6xf64>, tensor<i64>) -> tensor<1xf64>
    %1 = stablehlo.reshape %0 : (tensor<1xf64>) -> tensor<f64>
    return %1 : tensor<f64>
  }
  func.func private @closed_call(%arg0: tensor<f64>, %arg1: tensor<f64>) -> (tensor<f64>, tensor<f64>) {
    %0 = stablehlo.convert %arg0 : tensor<f64>
    %1 = stablehlo.multiply %0, %arg1 : tensor<f64>
    %2 = stablehlo.convert %arg0 : tensor<f64>
    %3 = stablehlo.multiply %2, %arg1 : tensor<f64>
    return %1, %3 : tensor<f64>, tensor<f64>
  }
  func.func private @dynamic_update_index_in_dim(%arg0: tensor<6xf64>, %arg1: tensor<f64>, %arg2: tensor<i64>) -> tensor<6xf64> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<f64>) -> tensor<1xf64>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %arg2 : (tensor<6xf64>, tensor<1xf64>, tensor<i64>) -> tensor<6xf64>
    return %1 : tensor<6xf64>
  }
}
