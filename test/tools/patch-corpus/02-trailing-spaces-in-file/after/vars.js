const a = 1;   
const b = 20;
const c = 3;  
