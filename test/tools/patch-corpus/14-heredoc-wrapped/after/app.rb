def hello
  puts "hello"
end
