module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x3xf32>, %arg1: tensor<6x7xf32>) -> (tensor<6x7xf32> {jax.result_info = "result"}) {
    %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %0 = stablehlo.pad %arg1, %cst, low = [0, 0], high = [0, 0], interior = [0, 0] : (tensor<6x7xf32>, tensor<f32>) -> tensor<6x7xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1 = "stablehlo.select_and_scatter"(%0, %arg0, %cst_0) <{padding = dense<0> : tensor<2x2xi64>, window_dimensions = array<i64: 2, 2>, window_strides = array<i64: 2, 2>}> ({
    ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
      %3 = stablehlo.compare GE, %arg2, %arg3, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %3 : tensor<i1>
    }, {
    ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
      %3 = stablehlo.add %arg2, %arg3 : tensor<f32>
      stablehlo.return %3 : tensor<f32>
    }) : (tensor<6x7xf32>, tensor<3x3xf32>, tensor<f32>) -> tensor<6x7xf32>
    %2 = stablehlo.slice %1 [0:6, 0:7] : (tensor<6x7xf32>) -> tensor<6x7xf32>
    return %2 : tensor<6x7xf32>
  }
}
