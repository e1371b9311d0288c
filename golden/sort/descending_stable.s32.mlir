module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<12xi32>) -> (tensor<12xi32> {jax.result_info = "result"}) {
    %0 = call @argsort(%arg0) : (tensor<12xi32>) -> tensor<12xi64>
    %1 = stablehlo.convert %0 : (tensor<12xi64>) -> tensor<12xi32>
    return %1 : tensor<12xi32>
  }
  func.func private @argsort(%arg0: tensor<12xi32>) -> tensor<12xi64> {
    %0 = stablehlo.iota dim = 0 : tensor<12xi64>
    %1 = stablehlo.reverse %arg0, dims = [0] : tensor<12xi32>
    %2 = stablehlo.reverse %0, dims = [0] : tensor<12xi64>
    %3:2 = "stablehlo.sort"(%1, %2) <{dimension = 0 : i64, is_stable = true}> ({
    ^bb0(%arg1: tensor<i32>, %arg2: tensor<i32>, %arg3: tensor<i64>, %arg4: tensor<i64>):
      %5 = stablehlo.compare LT, %arg1, %arg2, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %5 : tensor<i1>
    }) : (tensor<12xi32>, tensor<12xi64>) -> (tensor<12xi32>, tensor<12xi64>)
    %4 = stablehlo.reverse %3#1, dims = [0] : tensor<12xi64>
    return %4 : tensor<12xi64>
  }
}
