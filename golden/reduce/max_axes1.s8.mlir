module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x4x5xi8>) -> (tensor<3x5xi8> {jax.result_info = "result"}) {
    %c = stablehlo.constant dense<-128> : tensor<i8>
    %0 = stablehlo.reduce(%arg0 init: %c) applies stablehlo.maximum across dimensions = [1] : (tensor<3x4x5xi8>, tensor<i8>) -> tensor<3x5xi8>
    return %0 : tensor<3x5xi8>
  }
}
