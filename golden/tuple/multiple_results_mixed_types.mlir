module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3xf32>, %arg1: tensor<2x2xi64>) -> (tensor<3xf32> {jax.result_info = "result[0]"}, tensor<2x2xi64> {jax.result_info = "result[1]"}, tensor<f32> {jax.result_info = "result[2]"}, tensor<2x2xi1> {jax.result_info = "result[3]"}) {
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<3xf32>
    %1 = stablehlo.multiply %arg0, %0 : tensor<3xf32>
    %c = stablehlo.constant dense<1> : tensor<i64>
    %2 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i64>) -> tensor<2x2xi64>
    %3 = stablehlo.add %arg1, %2 : tensor<2x2xi64>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %4 = stablehlo.reduce(%arg0 init: %cst_0) applies stablehlo.add across dimensions = [0] : (tensor<3xf32>, tensor<f32>) -> tensor<f32>
    %c_1 = stablehlo.constant dense<0> : tensor<i64>
    %5 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<i64>) -> tensor<2x2xi64>
    %6 = stablehlo.compare GT, %arg1, %5, SIGNED : (tensor<2x2xi64>, tensor<2x2xi64>) -> tensor<2x2xi1>
    return %1, %3, %4, %6 : tensor<3xf32>, tensor<2x2xi64>, tensor<f32>, tensor<2x2xi1>
  }
}
