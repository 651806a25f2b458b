def hello
  puts "hi"
end
