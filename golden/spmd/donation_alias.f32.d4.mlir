module @jit__lambda attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8x2xf32> {mhlo.sharding = "{devices=[4,1]<=[4]}", tf.aliasing_output = 0 : i32}) -> (tensor<8x2xf32> {jax.result_info = "result", mhlo.sharding = "{devices=[4,1]<=[4]}"}) {
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<8x2xf32>
    %1 = stablehlo.add %arg0, %0 : tensor<8x2xf32>
    return %1 : tensor<8x2xf32>
  }
}
