module @jit_nested attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<5xi64>) -> (tensor<5xi64> {jax.result_info = "result"}) {
    %c = stablehlo.constant dense<0> : tensor<i64>
    %c_0 = stablehlo.constant dense<0> : tensor<i64>
    %0:3 = stablehlo.while(%iterArg = %c_0, %iterArg_1 = %c, %iterArg_2 = %arg0) : tensor<i64>, tensor<i64>, tensor<5xi64>
    cond {
      %c_3 = stablehlo.constant dense<4> : tensor<i64>
      %1 = stablehlo.compare LT, %iterArg, %c_3, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
      stablehlo.return %1 : tensor<i1>
    } do {
      %1:2 = func.call @closed_call(%iterArg_1, %iterArg_2) : (tensor<i64>, tensor<5xi64>) -> (tensor<i64>, tensor<5xi64>)
      %c_3 = stablehlo.constant dense<1> : tensor<i64>
      %2 = stablehlo.add %iterArg, %c_3 : tensor<i64>
      stablehlo.return %2, %1#0, %1#1 : tensor<i64>, tensor<i64>, tensor<5xi64>
    }
    return %0#2 : tensor<5xi64>
  }
  func.func private @closed_call(%arg0: tensor<i64>, %arg1: tensor<5xi64>) -> (tensor<i64>, tensor<5xi64>) {
    %c = stablehlo.constant dense<1> : tensor<i64>
    %0 = stablehlo.add %arg0, %c : tensor<i64>
    %c_0 = stablehlo.constant dense<2> : tensor<i64>
    %1 = call @remainder(%arg0, %c_0) : (tensor<i64>, tensor<i64>) -> tensor<i64>
    %c_1 = stablehlo.constant dense<0> : tensor<i64>
    %2 = stablehlo.compare EQ, %1, %c_1, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
    %3 = stablehlo.convert %2 : (tensor<i1>) -> tensor<i32>
    %4 = "stablehlo.case"(%3) ({
      %c_2 = stablehlo.constant dense<2> : tensor<i64>
      %5 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i64>) -> tensor<5xi64>
      %6 = stablehlo.multiply %arg1, %5 : tensor<5xi64>
      stablehlo.return %6 : tensor<5xi64>
    }, {
      %c_2 = stablehlo.constant dense<0> : tensor<i64>
      %c_3 = stablehlo.constant dense<0> : tensor<i64>
      %5:3 = stablehlo.while(%iterArg = %c_3, %iterArg_4 = %c_2, %iterArg_5 = %arg1) : tensor<i64>, tensor<i64>, tensor<5xi64>
      cond {
        %c_6 = stablehlo.constant dense<3> : tensor<i64>
        %6 = stablehlo.compare LT, %iterArg, %c_6, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
        stablehlo.return %6 : tensor<i1>
      } do {
        %6:2 = func.call @closed_call_0(%iterArg_4, %iterArg_5) : (tensor<i64>, tensor<5xi64>) -> (tensor<i64>, tensor<5xi64>)
        %c_6 = stablehlo.constant dense<1> : tensor<i64>
        %7 = stablehlo.add %iterArg, %c_6 : tensor<i64>
        stablehlo.return %7, %6#0, %6#1 : tensor<i64>, tensor<i64>, tensor<5xi64>
      }
      stablehlo.return %5#2 : tensor<5xi64>
    }) : (tensor<i32>) -> tensor<5xi64>
    return %0, %4 : tensor<i64>, tensor<5xi64>
  }
  func.func private @remainder(%arg0: tensor<i64>, %arg1: tensor<i64>) -> tensor<i64> {
    %c = stablehlo.constant dense<0> : tensor<i64>
    %0 = stablehlo.compare EQ, %arg1, %c, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
    %c_0 = stablehlo.constant dense<1> : tensor<i64>
    %1 = call @_where(%0, %c_0, %arg1) : (tensor<i1>, tensor<i64>, tensor<i64>) -> tensor<i64>
    %2 = stablehlo.remainder %arg0, %1 : tensor<i64>
    %c_1 = stablehlo.constant dense<0> : tensor<i64>
    %3 = stablehlo.compare NE, %2, %c_1, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
    %c_2 = stablehlo.constant dense<0> : tensor<i64>
    %4 = stablehlo.compare LT, %2, %c_2, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
    %c_3 = stablehlo.constant dense<0> : tensor<i64>
    %5 = stablehlo.compare LT, %1, %c_3, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
    %6 = stablehlo.compare NE, %4, %5, UNSIGNED : (tensor<i1>, tensor<i1>) -> tensor<i1>
    %7 = stablehlo.and %6, %3 : tensor<i1>
    %8 = stablehlo.add %2, %1 : tensor<i64>
    %9 = stablehlo.select %7, %8, %2 : tensor<i1>, tensor<i64>
    return %9 : tensor<i64>
  }
  func.func private @_where(%arg0: tensor<i1>, %arg1: tensor<i64>, %arg2: tensor<i64>) -> tensor<i64> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<i1>, tensor<i64>
    return %0 : tensor<i64>
  }
  func.func private @closed_call_0(%arg0: tensor<i64>, %arg1: tensor<5xi64>) -> (tensor<i64>, tensor<5xi64>) {
    %c = stablehlo.constant dense<1> : tensor<i64>
    %0 = stablehlo.add %arg0, %c : tensor<i64>
    %1 = stablehlo.convert %arg0 : tensor<i64>
    %2 = stablehlo.broadcast_in_dim %1, dims = [] : (tensor<i64>) -> tensor<5xi64>
    %3 = stablehlo.add %arg1, %2 : tensor<5xi64>
    return %0, %3 : tensor<i64>, tensor<5xi64>
  }
}
