module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x7xf64>, %arg1: tensor<6x7xf64>) -> (tensor<6x7xf64> {jax.result_info = "result"}) {
    %cst = stablehlo.constant dense<0xFFF0000000000000> : tensor<f64>
    %0 = stablehlo.pad %arg1, %cst, low = [0, 1], high = [1, 0], interior = [0, 0] : (tensor<6x7xf64>, tensor<f64>) -> tensor<7x8xf64>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %1 = "stablehlo.select_and_scatter"(%0, %arg0, %cst_0) <{padding = dense<0> : tensor<2x2xi64>, window_dimensions = array<i64: 3, 2>, window_strides = array<i64: 2, 1>}> ({
    ^bb0(%arg2: tensor<f64>, %arg3: tensor<f64>):
      %3 = stablehlo.compare GE, %arg2, %arg3, FLOAT : (tensor<f64>, tensor<f64>) -> tensor<i1>
      stablehlo.return %3 : tensor<i1>
    }, {
    ^bb0(%arg2: tensor<f64>, %arg3: tensor<f64>):
      %3 = stablehlo.add %arg2, %arg3 : tensor<f64>
      stablehlo.return %3 : tensor<f64>
    }) : (tensor<7x8xf64>, tensor<3x7xf64>, tensor<f64>) -> tensor<7x8xf64>
    %2 = stablehlo.slice %1 [0:6, 1:8] : (tensor<7x8xf64>) -> tensor<6x7xf64>
    return %2 : tensor<6x7xf64>
  }
}
