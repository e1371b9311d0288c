module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main() -> (tensor<5xi32> {jax.result_info = "result[0]"}, tensor<f32> {jax.result_info = "result[1]"}) {
    %0 = stablehlo.iota dim = 0 : tensor<5xi32>
    %c = stablehlo.constant dense<3> : tensor<i32>
    %1 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<5xi32>
    %2 = stablehlo.multiply %0, %1 : tensor<5xi32>
    %cst = stablehlo.constant dense<2.500000e+00> : tensor<f32>
    return %2, %cst : tensor<5xi32>, tensor<f32>
  }
}
