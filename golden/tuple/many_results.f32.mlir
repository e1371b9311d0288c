module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3xf32>) -> (tensor<3xf32> {jax.result_info = "result[0]"}, tensor<3xf32> {jax.result_info = "result[1]"}, tensor<3xf32> {jax.result_info = "result[2]"}, tensor<3xf32> {jax.result_info = "result[3]"}, tensor<3xf32> {jax.result_info = "result[4]"}, tensor<3xf32> {jax.result_info = "result[5]"}, tensor<3xf32> {jax.result_info = "result[6]"}, tensor<3xf32> {jax.result_info = "result[7]"}, tensor<3xf32> {jax.result_info = "result[8]"}, tensor<3xf32> {jax.result_info = "result[9]"}, tensor<3xf32> {jax.result_info = "result[10]"}, tensor<3xf32> {jax.result_info = "result[11]"}) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<3xf32>
    %1 = stablehlo.add %arg0, %0 : tensor<3xf32>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<3xf32>
    %3 = stablehlo.add %arg0, %2 : tensor<3xf32>
    %cst_1 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %4 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<3xf32>
    %5 = stablehlo.add %arg0, %4 : tensor<3xf32>
    %cst_2 = stablehlo.constant dense<3.000000e+00> : tensor<f32>
    %6 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<3xf32>
    %7 = stablehlo.add %arg0, %6 : tensor<3xf32>
    %cst_3 = stablehlo.constant dense<4.000000e+00> : tensor<f32>
    %8 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<3xf32>
    %9 = stablehlo.add %arg0, %8 : tensor<3xf32>
    %cst_4 = stablehlo.constant dense<5.000000e+00> : tensor<f32>
    %10 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<3xf32>
    %11 = stablehlo.add %arg0, %10 : tensor<3xf32>
    %cst_5 = stablehlo.constant dense<6.000000e+00> : tensor<f32>
    %12 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<3xf32>
    %13 = stablehlo.add %arg0, %12 : tensor<3xf32>
    %cst_6 = stablehlo.constant dense<7.000000e+00> : tensor<f32>
    %14 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f32>) -> tensor<3xf32>
    %15 = stablehlo.add %arg0, %14 : tensor<3xf32>
    %cst_7 = stablehlo.constant dense<8.000000e+00> : tensor<f32>
    %16 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<3xf32>
    %17 = stablehlo.add %arg0, %16 : tensor<3xf32>
    %cst_8 = stablehlo.constant dense<9.000000e+00> : tensor<f32>
    %18 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<f32>) -> tensor<3xf32>
    %19 = stablehlo.add %arg0, %18 : tensor<3xf32>
    %cst_9 = stablehlo.constant dense<1.000000e+01> : tensor<f32>
    %20 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<f32>) -> tensor<3xf32>
    %21 = stablehlo.add %arg0, %20 : tensor<3xf32>
    %cst_10 = stablehlo.constant dense<1.100000e+01> : tensor<f32>
    %22 = stablehlo.broadcast_in_dim %cst_10, dims = [] : (tensor<f32>) -> tensor<3xf32>
    %23 = stablehlo.add %arg0, %22 : tensor<3xf32>
    return %1, %3, %5, %7, %9, %11, %13, %15, %17, %19, %21, %23 : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
  }
}
